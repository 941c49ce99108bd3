/**
 * Namespace backends: {@link io.nvmf4j.target.backend.FileBackend} (regular file, O_DIRECT where the filesystem
 * allows, hole punching through fallocate), {@link io.nvmf4j.target.backend.BlockDeviceBackend} (ioctl
 * BLKGETSIZE64 / BLKDISCARD / BLKZEROOUT) and {@link io.nvmf4j.target.backend.RamBackend} (off-heap memory), behind
 * {@link io.nvmf4j.target.backend.NamespaceBackend}. The system calls Java lacks go through FFM with errno captured
 * ({@code LinuxCalls}).
 */
package io.nvmf4j.target.backend;
