import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * axe-core (the npm package, a pinned devDependency) run inside the page under test. The script is
 * evaluated through the DevTools protocol, so the pages' Content-Security-Policy (`default-src 'self'`)
 * stays as served. Experimental rules are switched on too: `label-content-name-mismatch` (WCAG 2.5.3,
 * the visible text of a control is part of its accessible name) is one of them.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

interface AxeGlobal {
  axe: {
    getRules(tags: string[]): { ruleId: string }[];
    run(
      context: unknown,
      options: unknown,
    ): Promise<{
      violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
    }>;
  };
}

/** The serious and critical violations axe finds on the page as it is now. */
export const seriousViolations = async (page: Page): Promise<AxeViolation[]> => {
  const injected = await page.evaluate(() => 'axe' in globalThis);
  if (!injected) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    // globalThis is the page's window there (this file is compiled without the DOM library).
    const { axe, document } = globalThis as unknown as AxeGlobal & { document: unknown };
    const experimental = Object.fromEntries(
      axe.getRules(['experimental']).map((rule) => [rule.ruleId, { enabled: true }]),
    );
    const result = await axe.run(document, { rules: experimental, resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => JSON.stringify(node.target)),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
};

/** Fails with every serious or critical violation named, with the elements it found it on. */
export const assertNoSeriousViolations = async (page: Page, where: string): Promise<void> => {
  const violations = await seriousViolations(page);
  if (violations.length === 0) return;
  const lines = violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} — ${v.targets.slice(0, 5).join(', ')}`,
  );
  throw new Error(
    `axe-core: ${violations.length} serious or critical violation(s) on ${where}:\n${lines.join('\n')}`,
  );
};
