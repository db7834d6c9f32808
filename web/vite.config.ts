// The dashboard's build: one page (index.html) and hashed assets under
// /assets/, written to ../dist/web where `coffer serve` serves them
// (src/http/dashboard.ts). Everything is bundled: the page loads nothing from
// outside the service.
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline data: URLs for assets, so the CSP needs no data: source.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
  },
  server: {
    // `npm run dev -w web` against a `coffer serve` on 8080.
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
})
