import { render } from 'preact';
import { App } from './app';
import type { CurrencyExponents } from './format';
import './dashboard.css';

/** Configuration the server hands over in a JSON script element (no inline code runs). */
const config = JSON.parse(document.getElementById('dashboard-config')?.textContent ?? '{}') as {
  currencyExponents?: CurrencyExponents;
};

render(<App exponents={config.currencyExponents ?? {}} />, document.getElementById('app')!);
