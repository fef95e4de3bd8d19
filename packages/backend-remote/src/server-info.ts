import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { SandboxError } from '@cordon/core'
import { CHANNEL_VERSION, parseServerInfo, type ServerInfo } from '@cordon/core/backend'
import type { RemoteSettings } from './remote-options.js'

/** The info answer is small; anything larger is not a cordon server. */
const MAX_INFO_BYTES = 64 * 1024

/** Asks the server (or the fleet behind the URL) what it runs programs on; BACKEND_UNAVAILABLE if it cannot say. */
export async function fetchServerInfo(settings: RemoteSettings): Promise<ServerInfo> {
  const text = await getText(settings)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw unavailable(`${settings.infoUrl} did not answer JSON`)
  }
  const info = parseServerInfo(body)
  if (typeof info === 'string') throw unavailable(`${settings.infoUrl} is not a cordon server: ${info}`)
  if (info.channelVersion !== CHANNEL_VERSION)
    throw unavailable(`the server speaks channel version ${info.channelVersion}; this backend speaks ${CHANNEL_VERSION}`)
  return info
}

function unavailable(message: string, cause?: unknown): SandboxError {
  return new SandboxError('BACKEND_UNAVAILABLE', message, cause === undefined ? undefined : { cause })
}

function getText(settings: RemoteSettings): Promise<string> {
  const url = new URL(settings.infoUrl)
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        headers: { authorization: `Bearer ${settings.token}` },
        timeout: settings.connectTimeoutMs,
        ...(settings.ca === undefined ? {} : { ca: settings.ca }),
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > MAX_INFO_BYTES) req.destroy(unavailable(`${settings.infoUrl} answered more than ${MAX_INFO_BYTES} bytes`))
          else chunks.push(chunk)
        })
        res.on('end', () => {
          const status = res.statusCode ?? 0
          if (status === 401) reject(unavailable(`${settings.infoUrl} refused the token`))
          else if (status !== 200) reject(unavailable(`${settings.infoUrl} answered HTTP ${status}`))
          else resolve(Buffer.concat(chunks).toString('utf8'))
        })
        res.on('error', (error) => reject(unavailable(`${settings.infoUrl}: ${error.message}`, error)))
      },
    )
    req.on('timeout', () => req.destroy(unavailable(`${settings.infoUrl} did not answer within ${settings.connectTimeoutMs} ms`)))
    req.on('error', (error) =>
      reject(error instanceof SandboxError ? error : unavailable(`cannot reach ${settings.infoUrl}: ${error.message}`, error)),
    )
    req.end()
  })
}
