import { redirectTarget, redirectUriRefusal, redirectUriRegistered } from '@cm/core';

/* Which redirect URIs a client may register (RFC 8252, OAuth 2.1 §2.3), and which an authorization request may name. */

it("takes https, http to this machine, and a native app's own scheme; refuses what a browser runs, fragments and credentials", () => {
  for (const good of [
    'https://chatgpt.com/connector_platform_oauth_redirect',
    'https://claude.ai/api/mcp/auth_callback',
    'http://127.0.0.1:33418/',
    'http://localhost/callback',
    'http://localhost:6274/cb',
    'http://[::1]:8080/cb',
    'cursor://anysphere.cursor-mcp/oauth/callback',
    'com.example.app:/oauth2redirect',
  ])
    expect([good, redirectUriRefusal(good)]).toEqual([good, null]);
  const refusals = Object.fromEntries(
    [
      'http://example.com/cb',
      'https://a.example/cb#x',
      'cursor://anysphere.cursor-mcp/cb#x',
      'https://u:p@a.example/cb',
      'javascript:alert(1)',
      'data:text/html,hi',
      'file:///etc/passwd',
      'vbscript:msgbox',
      'not a url',
    ].map((bad) => [bad, redirectUriRefusal(bad)]),
  );
  expect(refusals).toEqual({
    'http://example.com/cb': expect.stringContaining('http is only for this machine'),
    'https://a.example/cb#x': expect.stringContaining('fragment'),
    'cursor://anysphere.cursor-mcp/cb#x': expect.stringContaining('fragment'),
    'https://u:p@a.example/cb': expect.stringContaining('credentials'),
    'javascript:alert(1)': expect.stringContaining('the javascript scheme, which a browser runs'),
    'data:text/html,hi': expect.stringContaining('the data scheme'),
    'file:///etc/passwd': expect.stringContaining('the file scheme'),
    'vbscript:msgbox': expect.stringContaining('the vbscript scheme'),
    'not a url': 'not a url is not a URL',
  });
});

it('matches a loopback redirect URI on any port, and every other exactly (RFC 8252 §7.3)', () => {
  // Claude Code's metadata document: no port; it listens on whichever is free.
  const claudeCode = ['http://localhost/callback', 'http://127.0.0.1/callback'];
  expect(redirectUriRegistered(claudeCode, 'http://localhost:52163/callback')).toBe(true);
  expect(redirectUriRegistered(claudeCode, 'http://127.0.0.1:8080/callback')).toBe(true);
  expect(redirectUriRegistered(claudeCode, 'http://localhost/callback')).toBe(true);
  // VS Code registers one port and, when it is taken, comes back with another.
  const vscode = ['https://vscode.dev/redirect', 'http://127.0.0.1:33418/'];
  expect(redirectUriRegistered(vscode, 'http://127.0.0.1:59656/')).toBe(true);
  expect(redirectUriRegistered(vscode, 'http://127.0.0.1:59656')).toBe(true);
  // The host, path and query still match exactly; one loopback host never stands for another.
  for (const other of [
    'http://localhost:52163/other',
    'http://localhost:52163/callback?x=1',
    'http://[::1]:52163/callback',
    'https://localhost:52163/callback',
    'http://u@localhost:52163/callback',
    'http://evil.example:52163/callback',
  ])
    expect([other, redirectUriRegistered(claudeCode, other)]).toEqual([other, false]);
  expect(redirectUriRegistered(['http://[::1]/cb'], 'http://[::1]:4000/cb')).toBe(true);
  expect(redirectUriRegistered(['http://[::1]/cb'], 'http://localhost:4000/cb')).toBe(false);
  // Not loopback: the port is part of the match, and so is everything else.
  expect(redirectUriRegistered(['https://host.example/cb'], 'https://host.example:8443/cb')).toBe(false);
  expect(
    redirectUriRegistered(
      ['cursor://anysphere.cursor-mcp/oauth/callback'],
      'cursor://anysphere.cursor-mcp/oauth/callback',
    ),
  ).toBe(true);
  expect(redirectUriRegistered(['http://localhost/cb'], 'not a url')).toBe(false);
});

it('names where a redirect sends the browser, and the source its consent page lets a form lead to', () => {
  expect(redirectTarget('https://claude.ai/api/mcp/auth_callback')).toEqual({
    shown: 'claude.ai',
    source: 'https://claude.ai',
  });
  expect(redirectTarget('http://127.0.0.1:53682/callback')).toEqual({
    shown: '127.0.0.1:53682',
    source: 'http://127.0.0.1:53682',
  });
  expect(redirectTarget('cursor://anysphere.cursor-mcp/oauth/callback')).toEqual({
    shown: 'the app that opens cursor: links',
    source: 'cursor:',
  });
});
