// The full engine's worker (every command), started when the launch, report or import panel
// first asks (FULL_COMMANDS in index.js).
import createPplan from './generated/pplan.mjs';
import wasmUrl from './generated/pplan.wasm?url';
import { serve } from './worker-serve.js';

serve(createPplan, wasmUrl);
