import { defineConfig } from 'vitest/config';

// The dashboard is served by `auditd serve` from web/dist (embedded in the
// binary). `npm run dev` proxies the API to a running auditd (AUDITD_URL,
// default http://127.0.0.1:8080) so the app and the API share one origin,
// as they do in production.
const api = process.env.AUDITD_URL ?? 'http://127.0.0.1:8080';
// Everything but the app's own paths ("/", /app/…, its files and Vite's) is the API's.
const apiPaths = '^/(?!$|app(/|$)|src/|@|node_modules/|favicon\\.svg$).+';

export default defineConfig({
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    target: 'es2022',
    // No inline scripts or styles: the Content-Security-Policy forbids them.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: true,
  },
  server: {
    proxy: { [apiPaths]: { target: api } },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
