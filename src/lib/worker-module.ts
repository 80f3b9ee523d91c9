/**
 * The module of a worker thread that lives beside `from` (an `import.meta.url`), and how to start it.
 * From dist/ it is `<name>.js`, run as any module. From src/ (tests, `npm run dev`) it is `<name>.ts`,
 * which a thread can only load with tsx's loader registered in it: vitest transforms modules for its
 * own thread only, and `--import tsx` registers tsx in the main thread alone on Node before 24.11 (tsx
 * skips threads there). So the thread registers it first, through tsx's API (`register` of
 * `tsx/esm/api`, resolved from here, not from the working directory).
 * @returns the `URL` and `execArgv` to hand to `new Worker`.
 */
export function workerModule(from: string, name: string): { url: URL; execArgv?: string[] } {
  if (!from.endsWith('.ts')) return { url: new URL(`./${name}.js`, from) };
  const register = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register();`;
  return {
    url: new URL(`./${name}.ts`, from),
    execArgv: ['--import', `data:text/javascript,${encodeURIComponent(register)}`],
  };
}
