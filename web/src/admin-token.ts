import { accessToken, keepToken, takeTokenFromAddress } from './access-token.js';
import { byId } from './dom.js';

/**
 * The operator page's access token field: the token lives in the tab's session storage (access-token.ts),
 * never in the address; the Kiosk link carries it to the kiosk, which takes it from its own address.
 *
 * The field shows only when the service asks for a token (a 401), or when this tab holds one (so it can be
 * changed or cleared). A success without a token says none is needed, and the header says so instead.
 */
export interface TokenField {
  /** An answer was 401: `tokenSent` tells a wrong token from none. */
  refused(tokenSent: boolean): void;
  /** An answer was a success. */
  granted(tokenSent: boolean): void;
}

export const wireTokenField = (onChange: () => void): TokenField => {
  const form = byId('token-form', HTMLFormElement);
  const field = byId('token', HTMLInputElement);
  const status = byId('token-status', HTMLElement);
  const notNeeded = byId('token-not-needed', HTMLElement);
  const kiosk = byId('kiosk-link', HTMLAnchorElement);
  const show = (): void => {
    const token = accessToken();
    kiosk.href = token === undefined ? '/' : `/?token=${encodeURIComponent(token)}`;
    status.textContent = token === undefined ? 'No token set' : 'Token set for this tab';
  };
  const reveal = (): void => {
    form.hidden = false;
    notNeeded.hidden = true;
  };
  takeTokenFromAddress();
  show();
  if (accessToken() !== undefined) reveal();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    keepToken(field.value.trim());
    field.value = '';
    show();
    onChange();
  });
  return {
    refused: (tokenSent) => {
      reveal();
      status.textContent = tokenSent
        ? 'Token refused: this robot does not accept it; enter the right one'
        : 'Access refused: enter this robot’s access token';
      field.focus();
    },
    granted: (tokenSent) => {
      if (!tokenSent && form.hidden) notNeeded.hidden = false;
    },
  };
};
