package io.nvmf4j.config;

/**
 * An ANA group state on a port (NVMe 1.4, 8.20 Asymmetric Namespace Access Reporting; Linux
 * {@code nvmet_ana_group}). Group 1 exists on every port; its default state is {@code optimized}.
 *
 * @param state one of {@code optimized, non-optimized, inaccessible, persistent-loss, change}
 */
public record AnaGroup(int grpid, String state) {
}
