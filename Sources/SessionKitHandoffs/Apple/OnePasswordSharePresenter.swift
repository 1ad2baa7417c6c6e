#if canImport(UIKit)
    import Foundation
    public import UIKit

    // Apple-only glue, not compiled on Linux: every decision (which attachment is the grant, what a
    // completion means, what an error code stands for) is made by cross-platform code.

    /// Presents an access request in the share sheet, where 1Password's action extension (8.12.42
    /// or later) picks it up, and turns the sheet's `completionWithItemsHandler` into an
    /// ``AccessRequestCompletion``.
    ///
    /// ```swift
    /// let presenter = OnePasswordSharePresenter { [weak self] in self }   // 1Password's errors known by default
    /// let handoff = AccessRequestHandoff(presenter: presenter, clock: ContinuousClock())
    /// ```
    public struct OnePasswordSharePresenter: AccessRequestPresenter {
        /// Returns the view controller to present the sheet from, when there is one.
        public typealias Anchor = @MainActor @Sendable () -> UIViewController?

        private let anchor: Anchor
        private let errorTable: AccessRequestErrorTable

        /// Creates a presenter that shows the sheet from `anchor`'s view controller and reads the
        /// extension's errors with `errorTable` (by default 1Password's bridged
        /// `OnePasswordAccessRequestError`, see ``AccessRequestErrorTable/onePassword``).
        public init(errorTable: AccessRequestErrorTable = .onePassword, presentingFrom anchor: @escaping Anchor) {
            self.anchor = anchor
            self.errorTable = errorTable
        }

        /// Shows the sheet and returns what it reported; cancelling the calling task dismisses it.
        public func present(_ request: AccessRequest) async throws(AccessRequestPresentationError) -> AccessRequestCompletion {
            let sheet = await ShareSheet(request: request, errorTable: errorTable)
            let result = await withTaskCancellationHandler {
                await sheet.show(from: anchor)
            } onCancel: {
                // A bridge to UIKit: the cancellation handler runs synchronously on whichever
                // thread cancels, and the sheet can only be dismissed on the main actor. The hop is
                // all this task does; `show` returns only once the sheet is dismissed or closed, so
                // the presentation's own task (a child of the handoff's owner) waits for it unless
                // the sheet closed on its own first.
                Task { @MainActor in sheet.dismiss() }
            }
            return try result.get()
        }
    }

    /// One presentation of the share sheet, on the main actor.
    @MainActor
    private final class ShareSheet {
        private let request: AccessRequest
        private let errorTable: AccessRequestErrorTable
        private var controller: UIActivityViewController?
        private var continuation: CheckedContinuation<Result<AccessRequestCompletion, AccessRequestPresentationError>, Never>?
        private var dismissed = false

        init(request: AccessRequest, errorTable: AccessRequestErrorTable) {
            self.request = request
            self.errorTable = errorTable
        }

        func show(from anchor: OnePasswordSharePresenter.Anchor) async -> Result<AccessRequestCompletion, AccessRequestPresentationError> {
            await withCheckedContinuation { continuation in
                guard !dismissed else { return continuation.resume(returning: .failure(.cancelled)) }
                guard let presenting = anchor() else {
                    return continuation.resume(returning: .failure(.unavailable("no view controller to present from")))
                }
                self.continuation = continuation
                let controller = UIActivityViewController(activityItems: [makeItem()], applicationActivities: nil)
                // UIKit calls the handler on the main thread; the grant is loaded from there too.
                controller.completionWithItemsHandler = { [weak self] _, completed, returnedItems, error in
                    MainActor.assumeIsolated {
                        self?.closed(completed: completed, returnedItems: returnedItems, error: error)
                    }
                }
                if let popover = controller.popoverPresentationController {
                    popover.sourceView = presenting.view
                    popover.sourceRect = CGRect(x: presenting.view.bounds.midX, y: presenting.view.bounds.midY, width: 0, height: 0)
                    popover.permittedArrowDirections = []
                }
                self.controller = controller
                presenting.present(controller, animated: true)
            }
        }

        /// Turns the sheet's report into a completion; only grant attachments are loaded.
        private func closed(completed: Bool, returnedItems: [Any]?, error: (any Error)?) {
            let items = (returnedItems ?? []).compactMap { $0 as? NSExtensionItem }
            let reported = error.map { AccessRequestReportedError(bridging: $0, table: errorTable) }
            // A bridge to UIKit: `completionWithItemsHandler` is a synchronous callback, and the
            // grant loads asynchronously from its item providers. The task runs on the main actor
            // and ends by resuming `show`, which the presentation's own task awaits (a no-op if
            // the sheet was dismissed meanwhile).
            Task {
                let returned = await Self.returnedItems(items)
                finish(.success(AccessRequestCompletion(completed: completed, returnedItems: returned, error: reported)))
            }
        }

        func dismiss() {
            dismissed = true
            controller?.dismiss(animated: true)
            finish(.failure(.cancelled))
        }

        private func finish(_ result: Result<AccessRequestCompletion, AccessRequestPresentationError>) {
            continuation?.resume(returning: result)
            continuation = nil
            controller = nil
        }

        /// The shared item: one attachment that registers the request JSON under its type.
        private func makeItem() -> NSExtensionItem {
            let bytes = Data(request.jsonBytes())
            let provider = NSItemProvider()
            provider.registerDataRepresentation(forTypeIdentifier: AccessRequest.typeIdentifier, visibility: .all) { load in
                load(bytes, nil)
                return nil
            }
            let item = NSExtensionItem()
            item.attachments = [provider]
            return item
        }

        /// The returned items with their type identifiers; only grant attachments are loaded.
        private static func returnedItems(_ items: [NSExtensionItem]) async -> [AccessRequestReturnedItem] {
            var returned: [AccessRequestReturnedItem] = []
            for item in items {
                var attachments: [AccessRequestAttachment] = []
                for provider in item.attachments ?? [] {
                    var attachment = AccessRequestAttachment(
                        typeIdentifiers: provider.registeredTypeIdentifiers,
                        conformsToGrantType: provider.hasItemConformingToTypeIdentifier(AccessGrant.typeIdentifier))
                    if attachment.carriesGrant { attachment.data = await loadGrant(provider) }
                    attachments.append(attachment)
                }
                returned.append(AccessRequestReturnedItem(attachments: attachments))
            }
            return returned
        }

        private static func loadGrant(_ provider: NSItemProvider) async -> [UInt8]? {
            await withCheckedContinuation { continuation in
                _ = provider.loadDataRepresentation(forTypeIdentifier: AccessGrant.typeIdentifier) { data, _ in
                    continuation.resume(returning: data.map { [UInt8]($0) })
                }
            }
        }
    }
#endif
