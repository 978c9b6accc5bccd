/** Finds an element the page's HTML must have; a missing one is a build mistake, reported loudly. */
export const byId = <T extends Element>(id: string, type: abstract new () => T): T => {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`#${id} is missing or not a ${type.name}`);
  return element;
};

/** Creates an element with text and attributes; text is always set as text, never parsed as HTML. */
export const element = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string>> = {},
  text?: string,
): HTMLElementTagNameMap[K] => {
  const created = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) created.setAttribute(name, value);
  if (text !== undefined) created.textContent = text;
  return created;
};
