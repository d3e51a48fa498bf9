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

// The default page's first plan, answered when the page is built by the same engine the page
// runs (node-engine.js, pplan-plan.wasm), so a visitor sees it before the engine has compiled;
// first-plan.js takes it only for exactly that request (the default page, not an embed or a
// shared link). JSON in a data block: '<' escaped, so no '</script>' can end it early.
const prerenderFirstPlanPlugin = {
  name: 'pplan-prerender-first-plan',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler: async () => {
      const { firstPlanRequest, PRERENDERED_ID } = await import('./src/state/first-plan-request.js');
      const { default: createNodeEngine } = await import('./src/engine/node-engine.js');
      const request = await firstPlanRequest('', '');
      const response = (await createNodeEngine('plan')).handleRequest(request);
      if (!JSON.parse(response).ok) throw new Error(`prerender: the default page's first plan failed: ${response}`);
      const children = JSON.stringify({ request, response }).replace(/</g, '\\u003c');
      return [{ tag: 'script', attrs: { type: 'application/json', id: PRERENDERED_ID }, children, injectTo: 'body-prepend' }];
    },
  },
};

export default defineConfig({
  base: './',
  plugins: [preact({ devToolsEnabled: false, prefreshEnabled: true, exclude: [/node_modules/, /engine\/generated\//] }), cspPlugin, preloadEnginePlugin, prerenderFirstPlanPlugin],
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
