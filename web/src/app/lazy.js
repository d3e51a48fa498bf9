// A component loaded on first use (its own chunk), so the JavaScript of the first plan stays
// small: the worked examples, the launch and report tabs, the search pictures and the figures
// below the fold come later. It also re-renders only when its data props change (function props
// are callbacks recreated on every render and compare equal), which keeps an edit's render short.
import { Component, h } from 'preact';

const sameData = (a, b) => {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (a[k] !== b[k] && !(typeof a[k] === 'function' && typeof b[k] === 'function')) return false;
  }
  return true;
};

/** `load` resolves to the component; `fallback` renders meanwhile (props in, markup out). */
export function lazyComponent(load, fallback = () => null) {
  let Loaded = null;
  let pending = null;
  return class Lazy extends Component {
    componentDidMount() {
      if (Loaded) return;
      pending = pending || load().then((component) => { Loaded = component; });
      pending.then(() => { if (!this.gone) this.forceUpdate(); }, () => {});
    }
    componentWillUnmount() { this.gone = true; }
    shouldComponentUpdate(next) { return !Loaded || !sameData(this.props, next); }
    render(props) { return Loaded ? h(Loaded, props) : fallback(props); }
  };
}
