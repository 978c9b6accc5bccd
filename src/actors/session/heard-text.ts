/**
 * The text of an answer up to where the visitor interrupted it: every part played whole, then the leading
 * words of the part cut short in proportion to how much of its audio played. Words are the unit because a
 * dialogue history is read as words; the proportion is an estimate (speech is not uniform), stated as such
 * in docs/robot.md.
 */
export const heardText = (
  partTexts: readonly string[],
  cutPartIndex: number,
  partPlayedMs: number,
  partMs: number,
): string => {
  const whole = partTexts.slice(0, cutPartIndex).filter((text) => text !== '');
  const cut = partTexts[cutPartIndex] ?? '';
  const words = cut.split(/\s+/).filter((word) => word !== '');
  const share = partMs <= 0 ? 0 : Math.min(1, partPlayedMs / partMs);
  const heardWords = words.slice(0, Math.round(words.length * share));
  if (heardWords.length > 0) whole.push(heardWords.join(' '));
  return whole.join(' ');
};
