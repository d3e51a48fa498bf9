// Serves dist/ with Vite's preview server on 127.0.0.1 and an ephemeral port; builds the page
// first if dist/ is missing. Provides the base URL to the tests.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';

const web = fileURLToPath(new URL('..', import.meta.url));

export default async function setup(project) {
  if (!existsSync(`${web}dist/index.html`)) await build({ root: web, logLevel: 'warn' });
  const server = await preview({ root: web, preview: { host: '127.0.0.1', port: 0, strictPort: false }, logLevel: 'warn' });
  const address = server.httpServer.address();
  project.provide('baseUrl', `http://127.0.0.1:${address.port}/`);
  return async () => { await new Promise((resolve) => server.httpServer.close(resolve)); };
}
