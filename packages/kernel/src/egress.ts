import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { envFlag } from './config';

/**
 * Where an outgoing call of the gateway (a webhook to a merchant or a TPP, a call to a bank's
 * core_base_url or sandbox_core_base_url) may connect, judged on the IP address itself:
 * - `public`: global unicast, reachable on the internet;
 * - `private`: loopback, private (RFC 1918, unique local fc00::/7) and link-local networks: the
 *   gateway's own host and the networks behind it, reachable only with PRIVATE_TARGETS;
 * - `forbidden`: never, whatever the settings: unspecified, broadcast, multicast, shared address
 *   space (100.64.0.0/10, cloud metadata such as 100.100.100.200), the cloud instance metadata
 *   and credential services on link-local addresses (169.254.169.254 and its kin, CLOUD_METADATA),
 *   benchmarking (198.18.0.0/15), documentation, reserved and every other special-purpose range.
 */
export type AddressScope = 'public' | 'private' | 'forbidden';

/** What the operator allows beyond public addresses (PRIVATE_TARGETS). */
export interface EgressPolicy {
  /** Loopback, private and link-local targets too (local receivers, the demo, tests). */
  privateTargets: boolean;
}

/** The one wording of a refused target: the same whatever the address, so the delivery log probes nothing. */
export const TARGET_REFUSED = 'target refused: not a public address';

const PRIVATE_V4: ReadonlySet<string> = new Set(['loopback', 'private', 'linkLocal']);
const PRIVATE_V6: ReadonlySet<string> = new Set(['loopback', 'uniqueLocal', 'linkLocal']);
/** 2000::/3: the only IPv6 block IANA allocates for global unicast; anything else ipaddr.js calls unicast is unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
/** 64:ff9b::/96, the well-known NAT64 prefix (RFC 6052): the gateway of the network translates to the IPv4 in the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * Cloud instance metadata and credential services inside link-local space (AWS, GCP, Azure,
 * Oracle: 169.254.169.254; ECS task and EKS pod credentials: 169.254.170.2 and .23; AWS over
 * IPv6: fd00:ec2::254 and ::23). They hand out the host's credentials: no webhook and no bank
 * core is ever there, so no setting opens them (the rest of link-local stays `private`).
 */
export const CLOUD_METADATA: readonly string[] = [
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  'fd00:ec2::254',
  'fd00:ec2::23',
];
const METADATA_V4: ReadonlySet<string> = new Set(CLOUD_METADATA.filter((address) => ipaddr.IPv4.isValid(address)));
const METADATA_V6: readonly ipaddr.IPv6[] = CLOUD_METADATA.filter((address) => !ipaddr.IPv4.isValid(address)).map(
  (address) => ipaddr.IPv6.parse(address),
);

function scopeOfV4(address: ipaddr.IPv4): AddressScope {
  if (METADATA_V4.has(address.toString())) return 'forbidden';
  const range = address.range();
  if (range === 'unicast') return 'public';
  return PRIVATE_V4.has(range) ? 'private' : 'forbidden';
}

const v4FromWords = (high: number, low: number): ipaddr.IPv4 =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 address an IPv6 address carries and that a connection to it would reach, for the forms
 * where one does: IPv4-mapped (::ffff:a.b.c.d, connected as IPv4 by a dual-stack socket), IPv4-translated
 * (::ffff:0:a.b.c.d), NAT64's well-known prefix and 6to4 (2002:AABB:CCDD::/48).
 */
function embeddedV4(address: ipaddr.IPv6): { v4: ipaddr.IPv4; translated: boolean } | null {
  const parts = address.parts;
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145')
    return { v4: v4FromWords(parts[6]!, parts[7]!), translated: false };
  if (address.match(NAT64_WELL_KNOWN)) return { v4: v4FromWords(parts[6]!, parts[7]!), translated: true };
  if (range === '6to4') return { v4: v4FromWords(parts[1]!, parts[2]!), translated: true };
  return null;
}

function scopeOfV6(address: ipaddr.IPv6): AddressScope {
  const carried = embeddedV4(address);
  if (carried) {
    const scope = scopeOfV4(carried.v4);
    // Through a translator (NAT64, 6to4) only a public IPv4 is a destination of the internet.
    return carried.translated && scope !== 'public' ? 'forbidden' : scope;
  }
  if (METADATA_V6.some((metadata) => address.match(metadata, 128))) return 'forbidden';
  const range = address.range();
  if (PRIVATE_V6.has(range)) return 'private';
  // Teredo, ORCHID, documentation, IPv4-compatible ::/96 (deprecated; ::a.b.c.d) and other special ranges are never public.
  return range === 'unicast' && address.match(GLOBAL_UNICAST_V6) ? 'public' : 'forbidden';
}

/** The scope of an IP address in text form (IPv4, or IPv6 with or without brackets or a zone); anything else is forbidden. */
export function addressScope(address: string): AddressScope {
  const text = address.replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(text)) return 'forbidden';
  const parsed = ipaddr.parse(text);
  return parsed.kind() === 'ipv4' ? scopeOfV4(parsed as ipaddr.IPv4) : scopeOfV6(parsed as ipaddr.IPv6);
}

/** Whether a connection to this IP address is allowed under the policy. */
export function mayConnectTo(address: string, policy: EgressPolicy): boolean {
  const scope = addressScope(address);
  return scope === 'public' || (scope === 'private' && policy.privateTargets);
}

/**
 * The scope a URL hostname (as `new URL().hostname` gives it: IPv4 canonical, IPv6 in brackets)
 * fixes by itself: an IP literal's, loopback for the `localhost` names (RFC 6761), null for a DNS
 * name, which is judged on the addresses it resolves to when the connection is made.
 */
export function hostScope(hostname: string): AddressScope | null {
  const host = hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'private';
  return ipaddr.isValid(host) ? addressScope(host) : null;
}

/** Whether a URL's host, as far as it is known before resolving, may be connected to under the policy. */
export function mayTarget(hostname: string, policy: EgressPolicy): boolean {
  const scope = hostScope(hostname);
  return scope === null || scope === 'public' || (scope === 'private' && policy.privateTargets);
}

/** The wording of a URL refused at registration because of its host (the field's name goes before it). */
export const PUBLIC_ADDRESS_REQUIRED = 'must point to a public address (not loopback, private, link-local or reserved)';

/**
 * The one registration check of every URL the gateway will call (webhook_url of merchants,
 * sessions and TPPs, webhook endpoints, a bank's core_base_url and sandbox_core_base_url), in
 * every mode: a literal host (or a localhost name) the policy refuses is refused at once, since
 * no call would ever go there. A DNS name passes here and is judged on the addresses it resolves
 * to, at every connection (guardedLookup): DNS can change after registration.
 */
export function egressTargetProblem(url: URL, policy: EgressPolicy): string | null {
  return mayTarget(url.hostname, policy) ? null : PUBLIC_ADDRESS_REQUIRED;
}

/** egressTargetProblem as a zod refinement of a URL string (a string that is no URL is left to the URL rule). */
export function refineEgressTarget(policy: EgressPolicy) {
  return (value: string, ctx: z.RefinementCtx): void => {
    // zod runs refinements even when the URL check already failed: parse defensively.
    if (!URL.canParse(value)) return;
    const problem = egressTargetProblem(new URL(value), policy);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  };
}

/**
 * PRIVATE_TARGETS, read by every service that registers or calls a URL of the list above: on,
 * loopback, private and link-local targets are allowed too (local receivers and sandbox banks:
 * `npm start`'s demo, the tests, a cluster on one machine). WEBHOOK_PRIVATE_TARGETS, its name
 * before it covered bank cores too, is still read when PRIVATE_TARGETS is not set.
 */
export const egressEnvSchema = z.object({
  PRIVATE_TARGETS: envFlag.optional(),
  WEBHOOK_PRIVATE_TARGETS: envFlag.optional(),
});

/** Whether an environment allows private targets: PRIVATE_TARGETS, else WEBHOOK_PRIVATE_TARGETS, else off. */
export const privateTargetsFrom = (env: z.infer<typeof egressEnvSchema>): boolean =>
  env.PRIVATE_TARGETS ?? env.WEBHOOK_PRIVATE_TARGETS ?? false;

/** Whether the operator set either name (raw environment), so a default of the launcher does not override it. */
export const privateTargetsSet = (env: Record<string, string | undefined>): boolean =>
  env.PRIVATE_TARGETS !== undefined || env.WEBHOOK_PRIVATE_TARGETS !== undefined;

export const egressPolicyFrom = (env: z.infer<typeof egressEnvSchema>): EgressPolicy => ({
  privateTargets: privateTargetsFrom(env),
});
