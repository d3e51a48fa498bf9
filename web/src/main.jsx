// The page's entry: start the engine (the worker, and the .wasm compiling while it downloads)
// and ask for the first plan, or take the build's answer to it, then load the app, which
// arrives meanwhile.
import { loadEngine } from './engine/index.js';
import { PRERENDERED_ID } from './state/prerendered-id.js';
import './styles.css';

// The default page carries its first plan (the build's prerender, state/first-plan.js): there the
// engine starts once that answer is on screen (the store's next requests start it), so that
// compiling it does not hold up the answer. Elsewhere (a shared link, an embed) it starts now.
const defaultPage = !window.location.hash && !window.location.search && document.getElementById(PRERENDERED_ID);
if (!defaultPage) loadEngine().catch(() => {});
import('./state/first-plan.js').then((m) => m.prefetchFirstPlan(window)).catch(() => {});
import('./start.jsx');
