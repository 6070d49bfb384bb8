import type { JSX } from 'react'
import { UnderConstruction } from './UnderConstruction'

/** The Export view (placeholder until it is built). */
export function ExportView(): JSX.Element {
  return <UnderConstruction />
}
