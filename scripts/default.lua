-- The handler library loaded by default (turn off with --no-default-scripts or
-- scan.options { default_scripts = false }). Each handler module registers itself.
require "handlers.url"
require "handlers.tw_einvoice"
require "handlers.product"
require "handlers.contact"
require "handlers.gs1"
require "handlers.payment"
