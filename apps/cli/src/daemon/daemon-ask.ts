import net from 'node:net'
import { encode, messageReader, type ClientMessage, type DaemonMessage } from './daemon-protocol.js'

/**
 * Sends one request (a status, a stop) to the daemon at `socket` and resolves its first answer;
 * undefined when none answers there (no daemon, a stale socket, a malformed reply).
 */
export function ask(socket: string, request: ClientMessage): Promise<DaemonMessage | undefined> {
  return new Promise((resolve) => {
    const connection = net.createConnection(socket)
    connection.setEncoding('utf8')
    connection.once('connect', () => connection.write(encode(request)))
    connection.on(
      'data',
      messageReader(
        (message) => {
          resolve(message as DaemonMessage)
          connection.end()
        },
        () => connection.destroy(),
      ),
    )
    connection.once('error', () => resolve(undefined))
    connection.once('close', () => resolve(undefined))
  })
}
