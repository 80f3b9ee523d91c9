import type { Locator, Page } from 'playwright-core';

/**
 * The workflow editor as browser tests drive it: its graph's nodes and edge labels, Mantine selects,
 * and the "Add a step" dialog. `page` is read on each call (tests open their page in `beforeAll`).
 */
export function workflowEditor(page: () => Page) {
  /** The step node named `name` on the graph. */
  const node = (name: string) => page().locator(`[data-testid="step-node"][data-step-name="${name}"]`);
  /** The label of the edge from step `from` to step `to`. */
  const edge = (from: string, to: string) => page().locator(`[data-testid="edge-label"][data-edge="${from} -> ${to}"]`);
  /**
   * Picks `option` in the Mantine select labelled `label` inside `scope`, and returns once the select
   * shows it. A re-render of the panel (a query settling) can close the list under the click, which
   * then waits for an option that is gone: the list is opened again, three times at most. A click that
   * timed out may still have landed, and clicking a chosen option again clears it (Mantine's
   * `allowDeselect`), so each try first looks at what the select already shows.
   */
  const pick = async (scope: Locator | Page, label: string, option: string) => {
    const box = scope.getByRole('combobox', { name: label, exact: true });
    const choice = page().getByRole('option', { name: option, exact: true });
    for (let attempt = 1; ; attempt++) {
      if ((await box.inputValue()) === option) return;
      if (!(await choice.isVisible())) await box.click();
      try {
        await choice.click({ timeout: 5_000 });
        await box
          .page()
          .waitForFunction(
            ([el, want]) => (el as HTMLInputElement).value === want,
            [await box.elementHandle(), option] as const,
            { timeout: 5_000 },
          );
        return;
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
  };
  /** Adds a step through the "Add a step" dialog: opened by `opener`, then type, name and `fill`. */
  const addStep = async (opener: Locator, type: string, name: string, fill: (dialog: Locator) => Promise<void>) => {
    await opener.click();
    const dialog = page().getByRole('dialog', { name: 'Add a step' });
    await pick(dialog, 'Step type', type);
    await dialog.getByRole('textbox', { name: 'Step name' }).fill(name);
    await fill(dialog);
    await dialog.getByRole('button', { name: 'Add step' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await node(name).waitFor();
  };
  return { node, edge, pick, addStep };
}
