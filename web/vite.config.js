import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

// The Content-Security-Policy of the built page (not the dev server, whose hot reload needs
// inline scripts). 'wasm-unsafe-eval': the engine compiles WebAssembly. connect-src data: the
// SINGLE_FILE engine first tries fetch() on its inlined data: URL (then decodes it itself).
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self' data:",
  "worker-src 'self'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

// Starts downloading the engine chunk alongside the page's own script: the shell still renders
// first (the engine is a separate, lazily imported module), but the first plan comes sooner.
const preloadEnginePlugin = {
  name: 'pplan-preload-engine',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler: (html, ctx) => {
      const chunk = Object.values(ctx.bundle || {}).find((c) => c.type === 'chunk' && /generated\/pplan\.mjs$/.test(c.facadeModuleId || ''));
      return chunk ? [{ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: '', href: `./${chunk.fileName}` }, injectTo: 'head' }] : [];
    },
  },
};

const cspPlugin = {
  name: 'pplan-csp',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP }, injectTo: 'head-prepend' }],
  },
};

export default defineConfig({
  base: './',
  plugins: [preact({ devToolsEnabled: false, prefreshEnabled: true }), preloadEnginePlugin, cspPlugin],
  server: { fs: { allow: ['..'] } },
  build: { target: 'es2022', sourcemap: false, modulePreload: { polyfill: false }, chunkSizeWarningLimit: 1600 },
  test: {
    environment: 'jsdom',
    include: ['tests/**/*.test.{js,jsx}'],
    globalSetup: ['tests/global-setup.js'],
    testTimeout: 60000,
    hookTimeout: 120000,
    reporters: ['default', './tests/plain-reporter.js'],
  },
});
