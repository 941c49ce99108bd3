/**
 * {@code nvmf4j rpc} and {@code nvmf4j ctl}: the operator's client of a running {@code nvmf4j serve}'s JSON-RPC 2.0
 * management socket (what SPDK's {@code rpc.py} and nvmetcli are for their targets).
 */
package io.nvmf4j.cli.ctl;
