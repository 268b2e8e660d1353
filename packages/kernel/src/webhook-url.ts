import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { rules } from './validation';

/**
 * Where a production webhook must never point: the gateway's own host and the networks behind
 * it (SSRF). node's BlockList also matches IPv4-mapped IPv6 (::ffff:10.0.0.1) against the IPv4
 * rules, so that spelling cannot slip through.
 */
const PRIVATE_NETWORKS = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network": connecting to 0.0.0.0 reaches the local host on Linux
  ['127.0.0.0', 8], // loopback
  ['10.0.0.0', 8], // private
  ['172.16.0.0', 12], // private
  ['192.168.0.0', 16], // private
  ['169.254.0.0', 16], // link-local, including cloud metadata endpoints (169.254.169.254)
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv6');
}

/**
 * True when a URL hostname (as `new URL().hostname` gives it: IPv4 already canonical, IPv6 in
 * brackets) names a loopback, private or link-local target by itself. Only literals and the
 * `localhost` names are decided here; a DNS name that resolves to a private address must be
 * checked on the resolved address when delivering (DNS can change after registration).
 */
export function isPrivateNetworkHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true; // RFC 6761: always loopback
  const family = isIP(host);
  if (family === 4) return PRIVATE_NETWORKS.check(host, 'ipv4');
  if (family === 6) return PRIVATE_NETWORKS.check(host, 'ipv6');
  return false;
}

/** Why a production webhook URL is refused, or null. Development keeps loopback and private targets: local receivers and the demo banks live there. */
export function webhookTargetProblem(url: URL, production: boolean): string | null {
  if (production && isPrivateNetworkHost(url.hostname)) return 'must not point to a loopback, private or link-local address in production mode';
  return null;
}

/** zod rule for a webhook URL: trimmed, at most 2048 characters, http(s) in development, https to a public host in production. */
export function webhookUrlRule(production: boolean) {
  return z
    .string()
    .trim()
    .pipe(rules.url(production))
    .superRefine((value, ctx) => {
      // zod runs refinements even when the URL check already failed: parse defensively.
      if (!URL.canParse(value)) return;
      const problem = webhookTargetProblem(new URL(value), production);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}
