import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Start listening; resolves with the bound address, rejects with the listen error (EADDRINUSE, EACCES...). */
export async function listenOn(server: Server, port: number, host: string): Promise<{ host: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return { host: address.address, port: address.port };
}
