/**
 * The service's bearer token, when it runs with one (`--auth_token`). The kiosk takes it from its address,
 * `/?token=…`. The operator page asks for it in a field and keeps it in the tab's session storage, never in
 * the address it shows (a `?token=` it was opened with moves there). Browsers cannot put an Authorization
 * header on a WebSocket, so the kiosk offers it as the subprotocol `bearer.<token>` beside `tour-bridge`,
 * which the service selects.
 */

const STORAGE_KEY = 'tour-bridge-token';

const storedToken = (): string | undefined => {
  try {
    const token = sessionStorage.getItem(STORAGE_KEY);
    return token === null || token === '' ? undefined : token;
  } catch {
    return undefined;
  }
};

export const accessToken = (): string | undefined => {
  const token = new URLSearchParams(location.search).get('token');
  return token === null || token === '' ? storedToken() : token;
};

/** Keeps `token` for this tab (empty: forgets it). */
export const keepToken = (token: string): void => {
  try {
    if (token === '') sessionStorage.removeItem(STORAGE_KEY);
    else sessionStorage.setItem(STORAGE_KEY, token);
  } catch {
    // Storage refused (private mode): the token lasts until the page is left.
  }
};

/** Moves a `?token=` of the page's address into the tab's storage and out of the address bar. */
export const takeTokenFromAddress = (): void => {
  const url = new URL(location.href);
  const token = url.searchParams.get('token');
  if (token === null) return;
  keepToken(token);
  url.searchParams.delete('token');
  history.replaceState(history.state, '', url);
};

export const webSocketProtocols = (): string[] => {
  const token = accessToken();
  return token === undefined ? [] : ['tour-bridge', `bearer.${token}`];
};

export const authorizationHeaders = (): Record<string, string> => {
  const token = accessToken();
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
};
