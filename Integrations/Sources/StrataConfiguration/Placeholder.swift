import Strata
