/// PEM private keys for the reader's tests, made with the `openssl` command line for these tests
/// only: they sign nothing anywhere else.
enum TestPrivateKeys {
    /// A 2048-bit RSA key, PKCS #8.
    static let rsaPKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIIEvwIBADANBgkqhkiG9w0BAQEFAASCBKkwggSlAgEAAoIBAQDK843h4aDqs5lK
        iR6r2q95gZQqxxwDr6zduYlShARZ0qGobnjO9wttoOi+yiIqvL/y3hWb10YM23CW
        UkvUSNbx/4T0UTMuIFO469XXVWHQO8vtx4JEHCM7oVRoX/ljJnFBGEAEbo0Rwk1k
        m6beAuBWlMjjx4VszDV+/5gSbmTwpTV49L2Tvk3rlnN+kYTPryD6qi6kyHnKVTxj
        xW/MzcY0w0Z8qDd8tOIgOl/ECoUChmMX6Pwl3AOb4gnGIwyRWgU6rWmWa6VTILCN
        SK/FZsSGPTC8mR/GdXKN0twl8CdfQLBCI3Ia5GBrpK2WC5tHodidtZQb7EcKOSUT
        ryA5neu5AgMBAAECggEAPIoxiS9yfoCLmhHUHeSSkpbGOYqCf1EAqnVlksFBwP+V
        bHZjwC0ucgndU8hdL811HsADxySMx1oQOC8dYppF0BNuOCkesMRA5TkoZV8ZWfH0
        b54jbCjOk8OYt7flXx/BCe9vbUMC/sisqHXL7Y8DF6CzWksSsHUsAhHBbcIThzrg
        3fo1rNGSi9TG3ryH6sm9+Cj1J8Tv6dY+CvLIknlWhQ73dy1pkgPLtMFnm4fYgJe3
        1D3wYZR6hUkvqxqtzAtGPRNGyt+NW3XzLiINw5Xt3BvX2T2plkXVzRkleEPDrAcD
        Q+K3Qp4vn2dupnu0ZCsUAX5/zWf2YPYITgm+VGphpwKBgQDuF0ZuZmHLfZ2hCm+Y
        nr05+tQI9cCc/m2umIsenrHYutlNOSeIkXBW9HcCLEtq108dmVFQQbBhEF9Oewd/
        yYbj3SLgp12HDrnXucElrGi+I8v/tFqalkfm90sNpM3+Uaed3Z/s+v3MjAWDT9e1
        ebfIRAMpSY8BYh0yj0mzyWs+swKBgQDaN6AbFcYrAJeQKrDRxJasQ1/vUSbWE0AY
        2Mbddo02VoS5HbmtBW07vHlhfvOojsYm0fA7KBApDzyb0of769C3l8Euke6uRbhm
        i6KRnMBUJ7BeZgsV423pn7KZoMzwbTpg2jmBYAVY/1SaCMheuZQHFbHZras1p9eF
        zUaMIe7h4wKBgQCy758pPZzl+GRNMbCpPTPtrUtJ6Jh35Oe9vjtgKdhzkAncdcX2
        Z4fMcjI22d9cTrDRB/cKoDPU3x8htmjuayELg5jAykgKRtD5BkvY6nhV3kVkycEG
        SUeEl/o6KNAAAJI+nN+ilQfFgL5r78eoRfAPfL37e6MUYQ6cfv/fNNN67QKBgQDW
        V28PS6r0EEfPVu+JjBUHrcIsusRv4EbEYSGs5Ma+CeuiPR1lYwAxfeaoKl/BQERI
        W0whfy+odQvubrQdcjr4KrqZOMR+L4N6TkvnxVVxE+78OjVHUbZjlPaESlsjCdce
        zRtRBfUavunlxxyxVo2dC+U+0IRsVqmvBrv151rSSwKBgQCl15GUJrImZV5D8tQn
        9ywlTWzQwgpBf2r6jii4bUSBtq6waZwnkU+3NczPiOU5tfrG/SnZp1WpmRq7uEE5
        zMh6vb2qFKs7zEEtGD2JvUkSJNTGdBcw2GTCtD2C6s1QuZvO7QLvkUipiw2jbaRW
        Jxj4weOVFXXsEEDigYnAJ6vd9Q==
        -----END PRIVATE KEY-----
        """

    /// The same key, PKCS #1 (`RSA PRIVATE KEY`).
    static let rsaPKCS1 = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEpQIBAAKCAQEAyvON4eGg6rOZSokeq9qveYGUKsccA6+s3bmJUoQEWdKhqG54
        zvcLbaDovsoiKry/8t4Vm9dGDNtwllJL1EjW8f+E9FEzLiBTuOvV11Vh0DvL7ceC
        RBwjO6FUaF/5YyZxQRhABG6NEcJNZJum3gLgVpTI48eFbMw1fv+YEm5k8KU1ePS9
        k75N65ZzfpGEz68g+qoupMh5ylU8Y8VvzM3GNMNGfKg3fLTiIDpfxAqFAoZjF+j8
        JdwDm+IJxiMMkVoFOq1plmulUyCwjUivxWbEhj0wvJkfxnVyjdLcJfAnX0CwQiNy
        GuRga6StlgubR6HYnbWUG+xHCjklE68gOZ3ruQIDAQABAoIBADyKMYkvcn6Ai5oR
        1B3kkpKWxjmKgn9RAKp1ZZLBQcD/lWx2Y8AtLnIJ3VPIXS/NdR7AA8ckjMdaEDgv
        HWKaRdATbjgpHrDEQOU5KGVfGVnx9G+eI2wozpPDmLe35V8fwQnvb21DAv7IrKh1
        y+2PAxegs1pLErB1LAIRwW3CE4c64N36NazRkovUxt68h+rJvfgo9SfE7+nWPgry
        yJJ5VoUO93ctaZIDy7TBZ5uH2ICXt9Q98GGUeoVJL6sarcwLRj0TRsrfjVt18y4i
        DcOV7dwb19k9qZZF1c0ZJXhDw6wHA0Pit0KeL59nbqZ7tGQrFAF+f81n9mD2CE4J
        vlRqYacCgYEA7hdGbmZhy32doQpvmJ69OfrUCPXAnP5trpiLHp6x2LrZTTkniJFw
        VvR3AixLatdPHZlRUEGwYRBfTnsHf8mG490i4Kddhw6517nBJaxoviPL/7RampZH
        5vdLDaTN/lGnnd2f7Pr9zIwFg0/XtXm3yEQDKUmPAWIdMo9Js8lrPrMCgYEA2jeg
        GxXGKwCXkCqw0cSWrENf71Em1hNAGNjG3XaNNlaEuR25rQVtO7x5YX7zqI7GJtHw
        OygQKQ88m9KH++vQt5fBLpHurkW4ZouikZzAVCewXmYLFeNt6Z+ymaDM8G06YNo5
        gWAFWP9UmgjIXrmUBxWx2a2rNafXhc1GjCHu4eMCgYEAsu+fKT2c5fhkTTGwqT0z
        7a1LSeiYd+Tnvb47YCnYc5AJ3HXF9meHzHIyNtnfXE6w0Qf3CqAz1N8fIbZo7msh
        C4OYwMpICkbQ+QZL2Op4Vd5FZMnBBklHhJf6OijQAACSPpzfopUHxYC+a+/HqEXw
        D3y9+3ujFGEOnH7/3zTTeu0CgYEA1ldvD0uq9BBHz1bviYwVB63CLLrEb+BGxGEh
        rOTGvgnroj0dZWMAMX3mqCpfwUBESFtMIX8vqHUL7m60HXI6+Cq6mTjEfi+Dek5L
        58VVcRPu/Do1R1G2Y5T2hEpbIwnXHs0bUQX1Gr7p5cccsVaNnQvlPtCEbFaprwa7
        9eda0ksCgYEApdeRlCayJmVeQ/LUJ/csJU1s0MIKQX9q+o4ouG1EgbausGmcJ5FP
        tzXMz4jlObX6xv0p2adVqZkau7hBOczIer29qhSrO8xBLRg9ib1JEiTUxnQXMNhk
        wrQ9gurNULmbzu0C75FIqYsNo22kVicY+MHjlRV17BBA4oGJwCer3fU=
        -----END RSA PRIVATE KEY-----
        """

    /// A 1024-bit RSA key: too small.
    static let rsa1024 = """
        -----BEGIN PRIVATE KEY-----
        MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAOVcoyFQ+3Lqa+6E
        BG0KbrFc/j29JuaTrxtQP8Sx5S33+1whpqmwqLd+Bt+yvUyJY/hcYn8PBm8U4no6
        91nx/HSa0G2NUon1frwdso8oR8BPAwj3xIuODZ2FfKNLfgNS19BeXCZ5v4sSRnKZ
        Ygyx6p/sYZaMyVtbHEUeyN75nA4PAgMBAAECgYBNyBGmTcFIIkmB9JFPrTcGvQOX
        Slsz3KeIerl1aeLPqQY8I0lSyI8e0wVfvUzG9NzLMAFTF3RWHV4El5SkkxTKjfNd
        WT5PkpML/0UrK+k5pWkwrMpOTXGyDfMZpnqsugPnkk/1/UtFO9oMO1D99m8yZHyE
        PM2Qk5l3j4kx+XRCaQJBAPtro/LhoRmb1FEc+rJJHePd7RmDvW2NziqYlyQ6Zldl
        /gcHxRSk+LSASo1ZCQcjoqMuEnKeE6wPXtJhWMkAAlMCQQDpiiOFjOD4VH6zPdaE
        2Vqds6lcxfJ4jBJOFJRsO8c5biP1itwZZpx3d/2S6jvH1jgLt1lgTs92cptNE0WE
        Z4XVAkB8nHMb1FymdqeatEREzRx1be8v8C2Y+OmwDwUKPa+vratkDKPPgZyKyfMp
        b3GcCjt3qUQXbuXNJ6kVmI4KwWhlAkBfPbXE1jI9NABDyvk8ToP1AnsUWanL3Zvt
        edkZ1rslwbQqhAnE1iMDWczw6FOe6M8MgCaT7zAOZyjMowpbt/hNAkEAo+3CHQLN
        rYODvsacWhtYsbwXtm7VV8PDuO5e7S/JLN8bgDY+UaYotW01IOwOZoXYo8UOYOsZ
        ibXdktVFL7Z2bg==
        -----END PRIVATE KEY-----
        """

    /// A P-384 key (SEC 1): another curve.
    static let p384 = """
        -----BEGIN EC PRIVATE KEY-----
        MIGkAgEBBDAZb4r4SGU/uCzj/tq1BvG94RpMJ4jTtVfKcr78vjDv1V7SjrChSA5j
        tyjFFNmR8AWgBwYFK4EEACKhZANiAAQ+Ewbsz+HUCMWmr+LWRDl8lFtIys13cfBV
        /s0AMmtFVE7TYVbPeAxX8tFtuk4XXU+R/DGmIbAI2sgs676i6SEdvShXGj/GfjiG
        0himEJIXEWFYGirBitHnsmzmN1mfwIk=
        -----END EC PRIVATE KEY-----
        """

    /// An Ed25519 key (PKCS #8): another key type.
    static let ed25519 = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEIAdvjajxJebS/R3pNkWbp6HZiv3S2IHLbw7RjCFkatxx
        -----END PRIVATE KEY-----
        """

    /// A P-256 key encrypted with PKCS #8 (`ENCRYPTED PRIVATE KEY`).
    static let encryptedPKCS8 = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAi+AAc+n5WiuQICCAAw
        DAYIKoZIhvcNAgkFADAdBglghkgBZQMEAQIEEHF9oWxpJOiRTzWOfyaMT/UEgZDg
        Skpyt4bha/KbXUuRXSNis/jRHNnOPhO6/oQEURJJK/5mpEHEfrvfCH9c+nnxmuQd
        DZOc8E0QNZmToqK/zpNxIDnIw6ohq1t6CaWDge9wE8b7PhYcbXSVYvD0eryiR0D1
        unUx06SO+jlR0xkMxMQIDBUHAsX1M31/VTVdGfVBXQSjCBPy+s5bkI/EY7yVtuk=
        -----END ENCRYPTED PRIVATE KEY-----
        """

    /// An RSA key with OpenSSL's legacy PEM encryption (`Proc-Type: 4,ENCRYPTED`).
    static let encryptedLegacy = """
        -----BEGIN RSA PRIVATE KEY-----
        Proc-Type: 4,ENCRYPTED
        DEK-Info: AES-128-CBC,4B5A001FCC40644272DB290ABE21FBCB

        vv28igTEJa8Ms/mKyn7RQcPJ5cktj4YcEgzMBvjq7o/7LpRXMPwsO6GR6eUymdKC
        DnFeEHUmESsFalcxx+aapzmFV+EtVchY+gUa3Z6R4LqjO+9W4sUPUXVqnu++2P0x
        SRGsOmlDIZgKrJE/GH5qeG97fxOUdWKC/tLfWpuo4VWKWdn4qqbNcP6zG9s3wBqC
        wzZGfeIs9yCrauL4NQ7Xem9NtgTOGSlVMaSqHP5cya2TXQ1XFdhIpYcfVo5kPMA3
        LTZWa2tYRi6bexS5ezbcX4Rf5tossltzj53bussp07wYCiBVYsS2s99vU5Xz3WwB
        s7m9C2JruwVtN3PvyWBTYFEIfkyvS/Tk4ef/6Vn6Q2TjTVGgWEQWFV5hTPiSP1bF
        EjzSbbQd/esLBewGLV1Fos7nCXW4yBpzIC8RlVKs3R0Ymp+zDFZPIVByUXu4q7xz
        7GYmZFs4VCFPihzuJUguzRwg6TsfielLJGAVoPlW0F0vBJf5S5sFdChTMNbJmOjS
        /sr35J5mCXTo3bLNVp7oFSztt+nR91evYoNtyM7OJetgOf7V4vDEbSW7T8IDLHrw
        Rhkk0vZR69Z6N+/2Mqevf8K9pzXrjW+r1QCS/3YBNWJYh6DW1sFHA/3DUpCYTDAr
        YStnNGET4BtLElZ5DSAMAY/SHviwbhlBBbAruf3yW7SyV+POuIBjU2GqegVer0QW
        uaUPx5DFKvxb3+06oebciciNk3AfduSIC8ZjpMQFQpwc/Hpbvmj7feslN8lg5YOU
        cYUGRVL4fTjA5xJa4vAd3Z1PZw4l3EcuohaY2wcWQMTV8fZLBGwQRA2HEb+yp6Td
        XjviJPGkrCSPPh+fQjQzctsiHs7OallmV5Hdi2ZYnRrQgX+ym4LZJIWOuQHG8zDD
        SB+Hr1bw71JmK9QoJ+UyDTty4dpNEbJho2K7JOpB6NZ/FHJOCCzSIrdiG/1mNMz9
        EosOIQ0cln/XhGlW7P29MpraoU9MEm6q8LxyV+uBP3EHTG10ruM6AQnpOsxsalYY
        dJ0ankKoASPQjIjyhfBO2rimlSaCMnJMeDkqcnFfgrxtjGo6WUVvjyyupHYwgYDo
        VpetIbGwP0mnzVoAavCeDqgM7I9yfiFjY7hemN63lFRzDiaLeGNPEB7vG++LbTpC
        d22HDnL3Nly/6AypQkdWINJfYnZVtYMv39Mu25qRf0ijoD5dax21D+xC/brk7k94
        7N+PHDsdeG/+SBpqhiN2rYSuTtjkI9tg2gaw6tofGLVXn4ho5ZqpWF3jKYG2YfMN
        TaKZiTyQPvGAeGsKHChgp51Ve9+m0INXltJH4kN0Zy9I6+IIlb4riy5JtZoaE/GZ
        9yFuSd4X0SlkIx8h44dcy0ZRRlyy0KIYZA5oRHeW9YkgCWMR/9dcsYQiPmTdKdMC
        ABJEZ8tvEKHQ1433Y7blmRqhC/9Qs9TaGTDemSUIx6mP4WGe80DJW4eIt4n2jmS3
        AmBNJe3dDqMreTLeRuKQ0XdpvAD0GIPwxzM4j3dZU735U8QtJE3jPZJwsVm6siwv
        Eddj6jwB5DdcbvDnvfG5Cke9HAa9FQVvTq0yURKpqNRh2gowqMuR0t1wHC7ngLNy
        -----END RSA PRIVATE KEY-----
        """

    /// A public key only.
    static let ecPublicKey = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEBgP6Omcjh3lp+t+qFJN5hqjauY/f
        EBf5tj3ThjLv0ht6x+aKBH1kqYD8Bn6e8uFfeRycCOATyxkqa1mbO0clTw==
        -----END PUBLIC KEY-----
        """

    /// A P-256 key as `openssl ecparam -genkey` writes it: an `EC PARAMETERS` block, then SEC 1.
    static let p256WithParameters = """
        -----BEGIN EC PARAMETERS-----
        BggqhkjOPQMBBw==
        -----END EC PARAMETERS-----
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIMh5atnRrbFNqlsEA1YI4SBE1L+PkIBP9TiZECsh/gS9oAoGCCqGSM49
        AwEHoUQDQgAEBgP6Omcjh3lp+t+qFJN5hqjauY/fEBf5tj3ThjLv0ht6x+aKBH1k
        qYD8Bn6e8uFfeRycCOATyxkqa1mbO0clTw==
        -----END EC PRIVATE KEY-----
        """

    /// A P-256 key in SEC 1 without its public key.
    static let p256WithoutPublicKey = """
        -----BEGIN EC PRIVATE KEY-----
        MDECAQEEIMh5atnRrbFNqlsEA1YI4SBE1L+PkIBP9TiZECsh/gS9oAoGCCqGSM49
        AwEH
        -----END EC PRIVATE KEY-----
        """
}
