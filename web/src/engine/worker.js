// The planner's and the pictures' worker: the first-plan engine (wasm/README.md), every command
// the page asks before the launch, report or import panel opens.
import createPplan from './generated/pplan-plan.mjs';
import wasmUrl from './generated/pplan-plan.wasm?url';
import { serve } from './worker-serve.js';

serve(createPplan, wasmUrl);
