import type { SocketChannel } from './socket-channel.js'

/** Connections kept for a run, at most this many at once (each holds nothing on its server). */
const MAX_KEPT = 8

interface Kept {
  partition: string
  timer: ReturnType<typeof setTimeout>
}

/**
 * Connections whose run ended, kept `keepAliveMs` for the next one-off run of the same partition
 * (a server runs a connection's runs in the partition it was opened with).
 */
export class KeptConnections {
  private readonly byPartition = new Map<string, SocketChannel[]>()
  private readonly kept = new Map<SocketChannel, Kept>()
  private readonly watched = new WeakSet<SocketChannel>()

  constructor(private readonly keepAliveMs: number) {}

  /** The most recently kept sound connection for `partition`, if any. */
  take(partition: string | undefined): SocketChannel | undefined {
    const list = this.byPartition.get(partition ?? '')
    for (let channel = list?.pop(); channel !== undefined; channel = list?.pop()) {
      clearTimeout(this.kept.get(channel)?.timer)
      this.kept.delete(channel)
      if (channel.reusable) return channel
      channel.close()
    }
    return undefined
  }

  /** Keeps `channel` for a later run when it can carry one, and closes it otherwise. */
  keep(channel: SocketChannel, partition: string | undefined): void {
    if (this.keepAliveMs === 0 || !channel.reusable || this.kept.size >= MAX_KEPT) return channel.close()
    const key = partition ?? ''
    const list = this.byPartition.get(key) ?? []
    this.byPartition.set(key, list)
    list.push(channel)
    const timer = setTimeout(() => this.drop(channel), this.keepAliveMs)
    timer.unref?.()
    this.kept.set(channel, { partition: key, timer })
    // One listener per connection, however often it is kept: a server's close drops it.
    if (!this.watched.has(channel)) {
      this.watched.add(channel)
      channel.onClose(() => this.drop(channel))
    }
  }

  closeAll(): void {
    for (const channel of [...this.kept.keys()]) this.drop(channel)
  }

  private drop(channel: SocketChannel): void {
    const kept = this.kept.get(channel)
    if (kept === undefined) return
    clearTimeout(kept.timer)
    this.kept.delete(channel)
    const list = this.byPartition.get(kept.partition)
    const at = list?.indexOf(channel) ?? -1
    if (at >= 0) list?.splice(at, 1)
    channel.close()
  }
}
