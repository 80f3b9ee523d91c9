import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { SOURCE_HASH_FILE, sourceHash } from './source-hash';
import { zodWithoutJsonSchema } from './zod-no-json-schema';

/**
 * Writes `.gz` and `.br` beside every text asset over 1 kB once the bundle is written, so the server
 * sends them precompressed (@fastify/static `preCompressed`) instead of compressing on each request.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'pigeon-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((f) => {
          const full = path.join(dir, f);
          return statSync(full).isDirectory() ? walk(full) : [full];
        });
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json)$/.test(file) || file.includes(`${path.sep}.vite${path.sep}`)) continue;
        const data = readFileSync(file);
        if (data.length < 1024) continue;
        writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
        writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
      // Records what this bundle was built from, so tests can tell a stale bundle (web/test/support).
      writeFileSync(path.join(outDir, SOURCE_HASH_FILE), `${sourceHash(path.resolve(outDir, '..', '..'))}\n`);
    },
  };
}

/**
 * The dashboard is served by the API process under its own base path, `/app/` (web/web.routes.ts on
 * the server side), so client routes never shadow API paths such as `GET /contacts`.
 *
 * `npm run dev -w web` serves it with hot reload on http://localhost:5173/app/ and forwards every
 * other path to the API on http://localhost:3000 (override with PIGEON_API_URL), so the session
 * cookie stays first-party exactly as in production.
 */
const api = process.env.PIGEON_API_URL ?? 'http://localhost:3000';

export default defineConfig({
  base: '/app/',
  plugins: [react(), precompress(), zodWithoutJsonSchema()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The bench (bench/web-bundle.ts) reads the manifest to tell initial chunks from lazy ones.
    manifest: true,
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: {
      '^/(?!app(/|$)).*': { target: api, changeOrigin: false },
    },
  },
});
