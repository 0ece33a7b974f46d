/**
 * The engine's public entry for the layers above storage (runtime, wire, CLI): what they may use
 * of the shared engine besides the SPI (`storage/spi/`). Everything else under `storage/engine/`
 * and `storage/sql/` is internal to storage; lint refuses an import of it from those layers
 * (docs/development.md, "Layering").
 */
export { parseExportLine } from './maintenance/row-transfer.js'
export { salvagedRecords, SalvagePlanner } from './maintenance/salvage.js'
