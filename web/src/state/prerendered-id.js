/** The element of the built index.html that holds {request, response}: the engine's answer to
 * the default page's first plan request, computed by the same engine when the page was built
 * (vite.config.js). Its own module: the page's entry reads it before anything else loads. */
export const PRERENDERED_ID = 'pplan-first-plan';
