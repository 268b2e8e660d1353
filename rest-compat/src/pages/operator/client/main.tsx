import { render } from 'preact';
import { App } from './app';
import type { CurrencyExponents } from '../../dashboard/client/format';
import './console.css';

/** Configuration the server hands over in a JSON script element (no inline code runs). */
const config = JSON.parse(document.getElementById('console-config')?.textContent ?? '{}') as {
  currencyExponents?: CurrencyExponents;
  signedIn?: boolean;
};

render(
  <App exponents={config.currencyExponents ?? {}} signedIn={config.signedIn ?? false} />,
  document.getElementById('app')!,
);
