/**
 * The NVMe-oF target (controller side), laid out like Linux {@code drivers/nvme/target}.
 *
 * <p>Where things are: {@link io.nvmf4j.target.NvmeTarget} (configuration root, discovery generation counter,
 * timers), {@link io.nvmf4j.target.Subsystem} / {@link io.nvmf4j.target.SubsystemNamespace} /
 * {@link io.nvmf4j.target.Port} (the model), {@link io.nvmf4j.target.Controller} (core.c: CC/CSTS, keep-alive,
 * features, events, error log), {@code FabricsCommands} (fabrics-cmd.c: Connect, Property Get/Set, Disconnect),
 * {@code AdminCommands}, {@code IdentifyHandlers}, {@code LogPageHandlers} (admin-cmd.c), {@code DiscoveryCommands}
 * (discovery.c), {@code IoCommands} (io-cmd-file.c / io-cmd-bdev.c over {@link io.nvmf4j.target.backend}), and
 * {@link io.nvmf4j.target.TargetConfigurator} (nvmetcli configuration to a running target).
 *
 * <p>The transport boundary (nvmet_fabrics_ops): a transport implements {@link io.nvmf4j.target.TransportQueue}
 * per connection, obtains a {@link io.nvmf4j.target.SubmissionQueue} from
 * {@link io.nvmf4j.target.NvmeTarget#createQueue}, and drives each {@link io.nvmf4j.target.Request} through
 * {@code reset → prepare → (data) → execute → queueResponse}; {@code SubmissionQueue.destroy()} when the
 * connection ends. Handlers return NVMe statuses with the offending field's offset; nothing throws across the wire.
 */
package io.nvmf4j.target;
