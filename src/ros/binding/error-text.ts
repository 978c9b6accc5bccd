/** The first line of an error's message: rcl and rclnodejs messages can span lines; our errors are one-liners. */
export const firstLine = (error: unknown): string => {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split('\n', 1)[0]?.trim() ?? '';
  return line === '' ? 'unknown error' : line;
};
