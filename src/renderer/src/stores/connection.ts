import { create } from 'zustand'
import type { ConnectionStatus, RewindClient } from '../api/client.js'
import { attachProxies, syncProxies } from './proxies.js'
import { attachTraffic, syncTraffic } from './traffic.js'
import { attachSettings, syncSettings } from './settings.js'
import { attachBreakpoints, syncBreakpoints } from './breakpoints.js'
import { attachRules } from './rules.js'
import { attachCassettes } from './cassettes.js'

interface ConnectionState {
  transport?: RewindClient['transport']
  status: ConnectionStatus
}

export const useConnection = create<ConnectionState>()(() => ({ status: 'connecting' }))

/** Wires every store to the api; after a reconnect the stores reload (events were missed meanwhile). */
export function connectStores(api: RewindClient): () => void {
  useConnection.setState({ transport: api.transport, status: api.status() })
  // the first load is queued by attach* until the connection opens; every later 'open' is a reconnect
  let opened = api.status() === 'open'
  const offStatus = api.onStatus((status) => {
    useConnection.setState({ status })
    if (status !== 'open') return
    if (opened) {
      void syncProxies()
      void syncTraffic()
      void syncSettings()
      void syncBreakpoints()
    }
    opened = true
  })
  const detach = [attachProxies(api), attachTraffic(api), attachSettings(api), attachBreakpoints(api), attachRules(api), attachCassettes(api)]
  return () => {
    offStatus()
    for (const off of detach) off()
  }
}
