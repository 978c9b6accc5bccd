import { accessToken, keepToken, takeTokenFromAddress } from './access-token.js';
import { byId } from './dom.js';

/**
 * The operator page's access token field: the token lives in the tab's session storage (access-token.ts),
 * never in the address; the Kiosk link carries it to the kiosk, which takes it from its own address.
 */
export const wireTokenField = (onChange: () => void): { refused(tokenSent: boolean): void } => {
  const form = byId('token-form', HTMLFormElement);
  const field = byId('token', HTMLInputElement);
  const status = byId('token-status', HTMLElement);
  const kiosk = byId('kiosk-link', HTMLAnchorElement);
  const show = (): void => {
    const token = accessToken();
    kiosk.href = token === undefined ? '/' : `/?token=${encodeURIComponent(token)}`;
    status.textContent = token === undefined ? 'No token set' : 'Token set for this tab';
  };
  takeTokenFromAddress();
  show();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    keepToken(field.value.trim());
    field.value = '';
    show();
    onChange();
  });
  return {
    refused: (tokenSent) => {
      status.textContent = tokenSent
        ? 'Token refused: this robot does not accept it; enter the right one'
        : 'Access refused: enter this robot’s access token';
      field.focus();
    },
  };
};
