// The page's entry: start the engine first (the worker, and the .wasm compiling while it
// downloads) and ask for the first plan, then load the app, which arrives meanwhile.
import { loadEngine } from './engine/index.js';
import './styles.css';

loadEngine().catch(() => {});
import('./state/first-plan.js').then((m) => m.prefetchFirstPlan(window)).catch(() => {});
import('./start.jsx');
