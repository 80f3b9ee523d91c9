import { readFile, writeFile } from 'node:fs/promises';

/** Peak resident memory (`VmHWM`) of process `pid`, in bytes (Linux /proc). */
export async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+)/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmHWM for ${pid}`);
  return Number(kb) * 1024;
}

/** Resets the peak of `pid` to its current RSS (`clear_refs` 5); false where the kernel refuses. */
export async function resetPeakRss(pid: number): Promise<boolean> {
  return writeFile(`/proc/${pid}/clear_refs`, '5').then(
    () => true,
    () => false,
  );
}
