/**
 * Target configuration: the nvmetcli saveconfig.json schema plus nvmf4j's own section; loading and validation with errors that name the field and line.
 */
package io.nvmf4j.config;
