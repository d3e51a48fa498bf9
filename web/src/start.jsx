// The app: renders <App>, reads the URL, asks for the first plan, registers the service worker.
import { render } from 'preact';
import { App } from './app/App.jsx';
import { createStore } from './state/store.js';
import { isEmbed } from './state/embed.js';

const embed = isEmbed(window.location.search);
const store = createStore({ embed });
document.documentElement.classList.toggle('is-embed', embed);
const root = document.getElementById('app');
root.textContent = ''; // drop the static "Loading" placeholder
render(<App store={store} />, root);
store.init();

// Offline once loaded: a tiny service worker caches what the page fetched (not in embeds,
// where the sandbox or the host may forbid it; failures are harmless).
if (!embed && 'serviceWorker' in navigator && window.location.protocol !== 'file:') {
  navigator.serviceWorker.register('./sw.js').catch(() => {});
}
