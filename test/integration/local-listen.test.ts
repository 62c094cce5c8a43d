import { createServer } from 'node:http';
import { listen } from '@cm/local';
import { logger } from '@cm/runtime';

/*
 * An error of a listening socket (an accept that failed: EMFILE when the process is out of file
 * descriptors, ECONNABORTED) must not end the local stack: Node throws an 'error' no one listens for.
 */

it('logs an error of the listening socket and goes on serving, however many come', async () => {
  const server = createServer((_req, res) => res.end('up'));
  const port = await listen(server, 0, 'API server');
  const logged = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  try {
    for (const code of ['EMFILE', 'ECONNABORTED', 'EMFILE']) {
      server.emit('error', Object.assign(new Error(`accept ${code}`), { code, syscall: 'accept' }));
    }
    expect(logged.mock.calls.map(([line]) => line)).toEqual([
      'API server: EMFILE (accept EMFILE); still serving',
      'API server: ECONNABORTED (accept ECONNABORTED); still serving',
      'API server: EMFILE (accept EMFILE); still serving',
    ]);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('up');
  } finally {
    logged.mockRestore();
    await new Promise((resolve) => server.close(resolve));
  }
});

it('rejects when the port is taken, with the listen error', async () => {
  const first = createServer();
  const port = await listen(first, 0, 'first');
  try {
    await expect(listen(createServer(), port, 'second')).rejects.toMatchObject({ code: 'EADDRINUSE' });
  } finally {
    await new Promise((resolve) => first.close(resolve));
  }
});
