/// Every model the explorer checks, with the depth each is explored to by default.
public enum ModelCheck {
    /// The models' names, for `model-check --model NAME`.
    public static let names = ["machine", "refresh", "sign-out", "disconnect", "access-request", "credential-import", "shell"]

    /// The depth each model is explored to when none is given: the CI run's.
    public static let defaultDepth = [
        "machine": 11, "refresh": 24, "sign-out": 24, "disconnect": 30, "access-request": 16, "credential-import": 14, "shell": 18,
    ]

    /// Explores each model (`only`: those named) to `depth` (or its default), reporting each as it ends.
    public static func run(depth: Int?, only: [String]? = nil, report: (ExplorationReport) -> Void) -> [ExplorationReport] {
        var reports: [ExplorationReport] = []
        for name in names where only?.contains(name) ?? true {
            let depth = depth ?? defaultDepth[name] ?? 6
            let result: ExplorationReport =
                switch name {
                case "refresh": Explorer(RefreshProcedureModel()).run(depth: depth)
                case "sign-out": Explorer(SignOutProcedureModel()).run(depth: depth)
                case "disconnect": Explorer(DisconnectProcedureModel()).run(depth: depth)
                case "access-request": Explorer(AccessRequestMachineModel()).run(depth: depth)
                case "credential-import": Explorer(CredentialImportMachineModel()).run(depth: depth)
                case "shell": Explorer(ShellModel()).run(depth: depth)
                default: Explorer(SessionMachineModel()).run(depth: depth)
                }
            report(result)
            reports.append(result)
        }
        return reports
    }
}
