/**
 * What the providers (softiwarp, ibverbs) share, written once: the bases of their connection requests, listeners
 * and queue pairs, a listener's accept queue, a connection's disconnect listeners, and the argument checks of
 * registration, memory window binding, posting and private data. What is left in a provider is its transport. Not
 * exported by the module {@code io.nvmf4j.verbs}: public only so that both provider packages reach it.
 */
package io.nvmf4j.verbs.provider;
