import type { JSX } from 'react'
import { UnderConstruction } from './UnderConstruction'

/** The Cassettes view (placeholder until it is built). */
export function CassettesView(): JSX.Element {
  return <UnderConstruction />
}
