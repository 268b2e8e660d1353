import { escapeHtml } from '../pages/html';
import type { OpenApiDocument } from './document';

/**
 * /docs before Scalar has drawn it: every operation by tag (method, path, summary), rendered here
 * from the document, so the page shows the operation list at once and without JavaScript.
 * Scalar needs ~3 s on an 800 KB document (its parse, bundle and schema coercion run in the
 * browser, whatever the network); the page removes this outline when Scalar's reference arrives
 * (docs-page.ts). It is not inside Scalar's mount element: Scalar would try to hydrate it.
 */
export function docsOutline(document: OpenApiDocument): string {
  const byTag = new Map(document.tags.map((tag) => [tag.name, [] as string[]]));
  for (const [path, operations] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(operations)) {
      const tag = operation.tags[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag
        .get(tag)!
        .push(
          `<li><code class="method">${method.toUpperCase()}</code> <code>${escapeHtml(path)}</code> ${escapeHtml(operation.summary)}</li>`,
        );
    }
  const sections = [...byTag]
    .filter(([, items]) => items.length > 0)
    .map(([tag, items]) => `<section><h2>${escapeHtml(tag)}</h2><ul>${items.join('')}</ul></section>`);
  return `<div class="outline" id="outline"><p class="loading">${escapeHtml(document.info.title)}: loading the interactive reference (try-it, search, schemas)… Without JavaScript, the document itself is at <a href="/openapi.json">/openapi.json</a>.</p>${sections.join('')}</div>`;
}

/** The outline's look: plain and readable at 390 px (long paths wrap instead of widening the page). */
export const OUTLINE_STYLE = `.outline { font: 15px/1.5 system-ui, sans-serif; padding: 1rem 2rem; max-width: 60rem; }
.outline h2 { font-size: 1.1rem; margin: 1.2rem 0 0.3rem; }
.outline ul { list-style: none; margin: 0; padding: 0; }
.outline li { padding: 0.1rem 0; overflow-wrap: anywhere; }
.outline .method { display: inline-block; min-width: 4.5em; font-weight: 600; }`;
