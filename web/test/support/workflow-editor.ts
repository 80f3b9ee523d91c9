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
  /** Picks `option` in the Mantine select labelled `label` inside `scope`. */
  const pick = async (scope: Locator | Page, label: string, option: string) => {
    await scope.getByRole('combobox', { name: label, exact: true }).click();
    await page().getByRole('option', { name: option, exact: true }).click();
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
