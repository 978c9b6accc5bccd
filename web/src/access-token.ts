/**
 * The service's bearer token, when it runs with one (`--auth_token`): given once in the page address,
 * `/?token=…` or `/admin?token=…`. Browsers cannot put an Authorization header on a WebSocket, so the
 * kiosk offers it as the subprotocol `bearer.<token>` beside `tour-bridge`, which the service selects.
 */
export const accessToken = (): string | undefined => {
  const token = new URLSearchParams(location.search).get('token');
  return token === null || token === '' ? undefined : token;
};

export const webSocketProtocols = (): string[] => {
  const token = accessToken();
  return token === undefined ? [] : ['tour-bridge', `bearer.${token}`];
};

export const authorizationHeaders = (): Record<string, string> => {
  const token = accessToken();
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
};
