/** The cells of every Markdown table row in a text, trimmed; what the docs-match tests compare against. */
export const markdownTableRows = (markdown: string): string[][] =>
  markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
