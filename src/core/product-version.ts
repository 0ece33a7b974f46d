/** Product version reported by capabilities and the CLI (a leaf module, so `--version` stays cheap). */
export const PRODUCT_VERSION = '0.1.0'
