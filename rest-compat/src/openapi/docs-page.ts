import { ERROR_CODES } from '@gateway/kernel';
import type { JsonSchema, OpenApiDocument, OpenApiOperation, OpenApiParameter } from './document';

/** The docs page is rendered here from the OpenAPI document: no scripts, no CDN (machines may be offline). */

const escapeHtml = (text: unknown): string => String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function typeOf(schema: JsonSchema): string {
  if (schema.$ref) return String(schema.$ref).split('/').pop()!;
  if (schema.anyOf) return (schema.anyOf as JsonSchema[]).map(typeOf).join(' or ');
  // A long enumeration (the error codes) is listed in its own table instead.
  if (schema.enum) return schema.enum.length > 12 ? `${schema.type ?? 'string'}, one of ${schema.enum.length} values` : (schema.enum as unknown[]).map(String).join(' | ');
  if (schema.type === 'array') return `array of ${typeOf(schema.items ?? {})}`;
  return schema.type ?? 'any';
}

/** One row per field; nested objects as dotted names, so a body reads as a flat table. */
function fieldRows(schema: JsonSchema, prefix = ''): string[] {
  const required = new Set<string>(schema.required ?? []);
  return Object.entries<JsonSchema>(schema.properties ?? {}).flatMap(([name, property]) => {
    const fullName = `${prefix}${name}`;
    const row = `<tr><td><code>${escapeHtml(fullName)}</code></td><td>${escapeHtml(typeOf(property))}</td><td>${required.has(name) ? 'yes' : 'no'}</td><td>${escapeHtml(property.description ?? '')}</td></tr>`;
    return property.type === 'object' ? [row, ...fieldRows(property, `${fullName}.`)] : [row];
  });
}

function fieldTable(schema: JsonSchema): string {
  const rows = fieldRows(schema);
  if (!rows.length) return '';
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function securityText(document: OpenApiDocument, operation: OpenApiOperation): string {
  if (!operation.security.length) return 'none (public)';
  const schemes = document.components.securitySchemes as Record<string, JsonSchema>;
  const label = (name: string) => {
    const scheme = schemes[name] ?? {};
    return scheme.type === 'http' ? `Authorization: Bearer (${scheme.description ?? name})` : `${scheme.name ?? name}`;
  };
  return operation.security.map((alternative) => Object.keys(alternative).map(label).join(' + ')).join(' <em>or</em> ');
}

function parametersTable(document: OpenApiDocument, operation: OpenApiOperation): string {
  // Shared headers (Idempotency-Key) are references to components; X-Request-Id is on every route and documented once.
  const parameters = operation.parameters
    .map((p) => ('$ref' in p ? document.components.parameters[p.$ref.split('/').pop()!] : p))
    .filter((p): p is OpenApiParameter => p !== undefined && p.name !== 'X-Request-Id');
  if (!parameters.length) return '';
  const rows = parameters.map(
    (p) =>
      `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${escapeHtml(typeOf(p.schema))}</td><td>${p.required ? 'yes' : 'no'}</td><td>${escapeHtml(p.description ?? '')}</td></tr>`,
  );
  return `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function responsesList(operation: OpenApiOperation): string {
  const items = Object.entries(operation.responses).map(([status, response]) => {
    const schema = response.content?.['application/json']?.schema;
    const fields = schema && !schema.$ref ? fieldTable(schema) : '';
    const page = response.content?.['text/html']?.schema?.description;
    const html = page ? `<p>As text/html: ${escapeHtml(page)}</p>` : '';
    return `<li><span class="status s${status[0]}">${status}</span> ${escapeHtml(response.description)}${fields}${html}</li>`;
  });
  return `<h4>Responses</h4><ul class="responses">${items.join('')}</ul>`;
}

function operationSection(document: OpenApiDocument, path: string, method: string, operation: OpenApiOperation): string {
  const body = operation.requestBody?.content['application/json']?.schema;
  return `<section class="operation" id="${escapeHtml(operation.operationId)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p><strong>${escapeHtml(operation.summary)}</strong>${operation.description ? ` ${escapeHtml(operation.description)}` : ''}</p>
<p>Credentials: ${securityText(document, operation)}</p>
${parametersTable(document, operation)}
${body ? `<h4>Request body (application/json)</h4>${fieldTable(body)}` : ''}
${responsesList(operation)}
</section>`;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:72rem;margin:0 auto;padding:1rem 2rem;color:#1d2330;line-height:1.45}
code{font-family:ui-monospace,monospace;font-size:.95em}h1{margin-bottom:.2rem}nav ul{columns:2;padding-left:1rem}
.operation{border:1px solid #d5d9e2;border-radius:6px;padding:.2rem 1rem .6rem;margin:1rem 0}
.method{display:inline-block;min-width:4.2rem;text-align:center;border-radius:4px;color:#fff;font-size:.8em;padding:.15rem .4rem}
.get{background:#1f6feb}.post{background:#2da44e}.patch{background:#bf8700}.delete{background:#cf222e}
table{border-collapse:collapse;width:100%;margin:.3rem 0 .6rem;font-size:.92em}th,td{border:1px solid #e1e4ea;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f6f9}.responses{list-style:none;padding-left:0}.status{font-weight:600;display:inline-block;min-width:2.5rem}
.s2{color:#1a7f37}.s4{color:#9a6700}.s5{color:#cf222e}`;

/**
 * Rate limits and what a GraphQL document costs (issue 13: aliases must not multiply a limit).
 * The router enforces these (router/src/rate-limit.ts, server.ts); the text is kept beside them.
 */
const LIMITS = `<h2 id="limits">Limits</h2>
<p>Every response carries <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code> and <code>X-RateLimit-Reset</code> (seconds until the window resets); a refusal is 429 <code>RATE_LIMITED</code> with <code>Retry-After</code>. Operators may set other limits.</p>
<table><thead><tr><th>Limit class</th><th>Default per minute</th><th>Counted per</th><th>REST</th><th>GraphQL root fields</th></tr></thead><tbody>
<tr><td><code>session_create</code></td><td>100</td><td>merchant</td><td>POST /payments/sessions</td><td><code>createPaymentSession</code></td></tr>
<tr><td><code>identity_resolve</code></td><td>600</td><td>client IP</td><td>GET /v1/identity/resolve</td><td><code>resolveAlias</code> (alias, phone or iban)</td></tr>
<tr><td><code>ob_token</code></td><td>30</td><td>TPP (client IP when unknown)</td><td>POST /ob/token</td><td><code>exchangeAuthorizationCode</code>, <code>refreshAccessToken</code> (one per document)</td></tr>
<tr><td><code>read</code></td><td>300</td><td>credential (client IP when public)</td><td>other GET endpoints</td><td>every other query field</td></tr>
<tr><td><code>write</code></td><td>300</td><td>credential (client IP when public)</td><td>other writes</td><td>every other mutation field</td></tr>
</tbody></table>
<p><strong>GraphQL costs what the same REST calls would.</strong> A document spends one point of a field's class for each root field it selects: every alias counts, and so do root fields inside fragments (<code>{ a: resolveAlias(phone: "…") { iban } b: resolveAlias(phone: "…") { iban } }</code> costs 2 points of <code>identity_resolve</code>). A root field given a list of keys costs one point per key (no field takes one today). A document asking more points than are left is refused whole with 429 (nothing runs, nothing is spent); the headers show the class closest to its limit after the points are spent. A subscription costs one <code>read</code> point when it starts.</p>
<p>Document caps, refused with 400 <code>VALIDATION_ERROR</code>: at most 30 aliases, 5,000 tokens, 50 directives, depth 12, 500 field selections and a static cost of 5,000 (objects 2, scalars 1, ×1.5 per level). In production, introspection is off and error messages carry no field suggestions.</p>`;

/** The whole API as one self-contained HTML page. */
export function renderDocsPage(document: OpenApiDocument): string {
  const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
  const byTag = document.tags.map(({ name }) => ({ name, operations: operations.filter(({ operation }) => operation.tags.includes(name)) }));
  const nav = operations.map(({ path, method, operation }) => `<li><a href="#${escapeHtml(operation.operationId)}">${method.toUpperCase()} ${escapeHtml(path)}</a></li>`).join('');
  const sections = byTag
    .map(({ name, operations: list }) => `<h2>${escapeHtml(name)}</h2>${list.map(({ path, method, operation }) => operationSection(document, path, method, operation)).join('\n')}`)
    .join('\n');
  const errorFields = fieldTable(document.components.schemas.Error ?? {});
  const codeRows = Object.entries(ERROR_CODES)
    .sort(([, a], [, b]) => a.status - b.status)
    .map(([code, { status, message }]) => `<tr><td><code>${code}</code></td><td>${status}</td><td>${escapeHtml(message)}</td></tr>`)
    .join('');
  const codeTable = `<table><thead><tr><th>Code</th><th>HTTP status</th><th>Meaning</th></tr></thead><tbody>${codeRows}</tbody></table>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(document.info.title)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(document.info.title)}</h1><p>Version ${escapeHtml(document.info.version)}. ${escapeHtml(document.info.description)}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${escapeHtml(document.openapi)}). GraphQL: <code>POST /graphql</code>. Bank core interface (what the gateway calls on a bank's core): <a href="/openapi/bank-core.json">/openapi/bank-core.json</a>.</p>
<nav><h2>Endpoints</h2><ul>${nav}</ul></nav>
${LIMITS}
<h2>Errors</h2><p>Every error has this body; the HTTP status follows from the code.</p>${errorFields}
<details><summary>Error codes</summary>${codeTable}</details>
${sections}
</body></html>`;
}
