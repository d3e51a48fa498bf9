import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

// The Content-Security-Policy of the built page (not the dev server, whose hot reload needs
// inline scripts). 'wasm-unsafe-eval': the engine compiles WebAssembly. worker-src 'self': the
// engine runs in module workers. connect-src 'self': the workers fetch the engine's .wasm.
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const cspPlugin = {
  name: 'pplan-csp',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP }, injectTo: 'head-prepend' }],
  },
};

// The first-plan engine's .wasm, fetched from the page's head: it downloads while the HTML and
// the entry script load, and the compile (engine/index.js compiledEngine) starts from the cache.
const preloadEnginePlugin = {
  name: 'pplan-preload-engine',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler: (html, { bundle }) => {
      const wasm = Object.keys(bundle || {}).find((name) => /(^|\/)pplan-plan-[^/]*\.wasm$/.test(name));
      return wasm ? [{ tag: 'link', attrs: { rel: 'preload', href: `./${wasm}`, as: 'fetch', crossorigin: '' }, injectTo: 'head' }] : [];
    },
  },
};

export default defineConfig({
  base: './',
  plugins: [preact({ devToolsEnabled: false, prefreshEnabled: true, exclude: [/node_modules/, /engine\/generated\//] }), cspPlugin, preloadEnginePlugin],
  worker: { format: 'es' },
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
