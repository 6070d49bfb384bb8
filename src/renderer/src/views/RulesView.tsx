import type { JSX } from 'react'
import { UnderConstruction } from './UnderConstruction'

/** The Rules view (placeholder until it is built). */
export function RulesView(): JSX.Element {
  return <UnderConstruction />
}
