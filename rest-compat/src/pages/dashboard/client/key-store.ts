/**
 * The merchant key lives in this tab's sessionStorage only: gone when the tab closes, never put
 * in a URL (no query string, no hash) and never written to the console.
 */
const KEY_ITEM = 'gateway.dashboard.merchantKey';

export const storedKey = (): string | null => {
  try {
    return sessionStorage.getItem(KEY_ITEM);
  } catch {
    return null;
  }
};

export const storeKey = (key: string): void => sessionStorage.setItem(KEY_ITEM, key);

export const forgetKey = (): void => sessionStorage.removeItem(KEY_ITEM);

/** mk_test_… or mk_live_… followed by its secret part; anything else is still sent, so the API's own refusal is shown. */
export const looksLikeMerchantKey = (key: string): boolean => /^mk_(test|live)_\S+$/.test(key);
