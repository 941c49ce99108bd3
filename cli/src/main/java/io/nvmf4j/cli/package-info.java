/**
 * The nvmf4j command (picocli): serve, discover, connect/identify, read, write, perf, mount; Micrometer metrics wiring and reports.
 */
package io.nvmf4j.cli;
