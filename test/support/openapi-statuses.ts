import type { ObservedAnswer } from './http.js';

/** The part of our OpenAPI document that says which statuses each operation answers. */
export interface OpenApiStatuses {
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components: { readonly responses?: Readonly<Record<string, unknown>> };
}

const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

const templatePattern = (template: string): RegExp =>
  new RegExp(
    `^${template
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );

/**
 * The answers whose status the document does not give for their operation. An answer on a documented
 * path with a method the path does not list must be the document's 405 (`MethodNotAllowed`) or, for
 * OPTIONS, a preflight (204, or 403 for a foreign origin). Answers on undocumented paths are not checked.
 */
export const undocumentedAnswers = (
  document: OpenApiStatuses,
  answers: Iterable<ObservedAnswer>,
): string[] => {
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: templatePattern(template),
  }));
  const problems = new Set<string>();
  for (const { method, path, status } of answers) {
    const bare = path.split('?')[0] ?? path;
    const match = templates.find(({ pattern }) => pattern.test(bare));
    if (match === undefined) continue;
    const item = document.paths[match.template] ?? {};
    // HEAD is answered wherever GET is, with GET's statuses (the document's description says so).
    const operation = (item[method.toLowerCase()] ?? (method === 'HEAD' ? item['get'] : undefined)) as
      | { readonly responses?: Readonly<Record<string, unknown>> }
      | undefined;
    const where = `${method} ${match.template}`;
    if (operation !== undefined && OPERATION_METHODS.has(method.toLowerCase())) {
      if (operation.responses?.[String(status)] === undefined) problems.add(`${where}: ${status}`);
    } else if (method === 'OPTIONS') {
      if (status !== 204 && status !== 403) problems.add(`${where}: ${status}`);
    } else if (status !== 405 || document.components.responses?.['MethodNotAllowed'] === undefined) {
      problems.add(`${where}: ${status}`);
    }
  }
  return [...problems].sort();
};
